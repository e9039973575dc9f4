"""Small helpers shared by every part of the project."""
