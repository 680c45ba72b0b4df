"""Tests of the host's rules: statistics and verify (host/referee/)."""
