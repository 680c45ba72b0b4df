"""Tests of staff accounts and credentials (host/staff/)."""
