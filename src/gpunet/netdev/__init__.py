"""Switch pushes: netmiko sessions and per-platform safe-commit strategies."""
