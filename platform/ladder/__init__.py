"""The continuous ladder: matchmaking by live rating, and the rule that suspends failing versions.

It stands above ratings (it pairs by the live rating) and below tournaments; matches tells it of results
through the finish pipeline (settings.MATCH_HOOKS), never by importing it."""
