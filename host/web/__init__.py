"""The scoreboards' web server (aiohttp) and its static pages."""
