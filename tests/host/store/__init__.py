"""Tests of the store and the money chain (host/store/)."""
