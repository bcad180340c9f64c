"""Topology planning: fat-tree sizing, cabling bill of materials, collective performance model."""
