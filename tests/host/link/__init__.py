"""Tests of the serial link (host/link/)."""
