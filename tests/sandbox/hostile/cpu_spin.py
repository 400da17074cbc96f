"""Burn CPU forever."""
print('{"type": "ready"}', flush=True)
while True:
    pass
