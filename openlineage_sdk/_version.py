__version__ = "0.1.0"
"""The version of the openlineage-sdk package."""
