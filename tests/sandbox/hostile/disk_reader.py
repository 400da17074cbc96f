"""Read a large system file straight from the disk (O_DIRECT, past the page cache) as fast as allowed."""
import json
import mmap
import os
import sys
import time

path, megabytes = sys.argv[1], int(sys.argv[2])
chunk = mmap.mmap(-1, 1 << 18)  # page-aligned, as O_DIRECT requires
fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
began = time.monotonic()
done = 0
while done < megabytes << 20:
    got = os.preadv(fd, [chunk], done)
    if got <= 0:
        break
    done += got
print(json.dumps({"read_mb": done / (1 << 20), "seconds": time.monotonic() - began}), flush=True)
