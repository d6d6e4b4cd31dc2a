"""The app's widgets and drawings; screens compose these and keep only their flow and keys."""
