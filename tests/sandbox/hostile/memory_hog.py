"""Allocate and touch memory, 4 MiB at a time, until stopped."""
chunks = []
print('{"type": "ready"}', flush=True)
while True:
    chunks.append(b"\x01" * (4 << 20))  # written byte by byte: every page is really used
