"""The tutorial's tools: see __main__.py for the commands."""
