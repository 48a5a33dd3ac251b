"""Sample bots. Each bot script uses only the generated protocol stubs (cardgames.v1)."""
