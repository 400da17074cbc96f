"""The interpreters a bot may rely on inside every sandbox backend.

This list is what the bot runtime image installs (sandbox/image/) and what bwrap exposes from the host;
the upload check and docs/protocol.md follow it. A bot whose entry point needs anything else is refused.
"""

from __future__ import annotations

# command name -> what docs/protocol.md promises about it
RUNTIMES: dict[str, str] = {
    "python3": "Python 3.11, standard library only",
    "node": "Node.js 20, no packages",
    "perl": "Perl 5.36, core modules only",
}
