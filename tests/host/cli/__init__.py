"""Tests of the commands (host/cli/)."""
