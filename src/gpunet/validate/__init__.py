"""Post-deploy validation: parse raw tool output, judge it against the inventory, report."""
