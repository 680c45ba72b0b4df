"""Tests of the daemon and what runs per table (host/venue/)."""
