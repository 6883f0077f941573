"""scopasim: Monte Carlo simulation of the Scopa family of fishing card games."""

__version__ = "0.1.0"
