"""The sandbox backends, one module each, started through `sandbox.start(backend=...)`:

- `bwrap`: bubblewrap namespaces, a leased uid, cgroups (or rlimits) and seccomp; the local default. Its copy
  of the bot's files: `bwrap_staging`.
- `docker`: one throw-away container per bot under Docker or Podman; production. Which engine:
  `container_engine`; its seccomp profile: `container_seccomp`; Podman's pipes: `container_fifos`; removing
  what a crashed worker left: `container_reaper`.
- `unsafe`: no isolation, for trusted built-in bots only, when the caller says so.

What the backends share (limits, the launcher, cgroups, uids, the report, owner tokens and the sweep of
leftovers) is in the `sandbox` package itself; no backend imports another.
"""
