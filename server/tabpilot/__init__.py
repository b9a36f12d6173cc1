"""tabpilot: run JavaScript in a real Chrome tab, gated by a human-held switch."""

__version__ = "0.1.0"
