"""Write to stdout forever: one endless line, or many lines."""
import sys

chunk = b"x" * 65536 if sys.argv[1] == "endless-line" else b"spam\n" * 13107
while True:
    sys.stdout.buffer.write(chunk)
