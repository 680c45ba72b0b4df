"""Tests of table time and money (host/club/)."""
