"""Kozyr's arena: card-game engines, the bot protocol, the referee and the local runner.

Pure Python with no Django and no sandbox imports: the platform and the sandbox are wired to it from
outside (see ../shared/DESIGN.md, "Boundaries").
"""

from arena import compiled as _compiled

# Before any engine module is imported, so that one process never holds both builds of a module (compiled.py).
_compiled.install()
