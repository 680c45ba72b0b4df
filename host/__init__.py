"""Host side of baulk: CLI, daemon, store, web boards, simulator."""
