"""What bots tell the apps above them, without importing them (they connect in their AppConfig.ready)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent, inside the transaction that changed it, when a bot's current version changes (a version passed its
# validation, a house bot was registered): keyword arguments bot_id and version_id.
current_version_changed = Signal()

# Sent when a bot may have left the ladder or come back (deactivated or activated, suspended or reinstated):
# keyword argument bot_ids. The ladder cancels the queued matches of what left (ladder.withdrawal).
ladder_standing_changed = Signal()
