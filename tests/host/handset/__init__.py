"""Tests of the handset's texts and languages (host/handset/)."""
