"""The drawing behind images/draw.py: geometry and canvas, the traits table, backgrounds, the fox."""
