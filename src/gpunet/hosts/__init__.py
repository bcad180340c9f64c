"""Host-side settings derived from the fabric model, shared by the host roles (through filters) and tests."""
