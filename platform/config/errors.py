"""The one error an action raises when a request cannot be carried out.

``check_*`` and ``do_*`` functions (bots, matches, tournaments, …) raise an ``ActionError`` whose message
says what was wrong and how to fix it, and whose ``field`` names the input at fault (None: the request as a
whole). The API's exception handler (config.api) turns every one into the error body the API documents
(400 with the field's message, or the subclass's own status and code); the pages show the message beside
the field. Nothing catches an ActionError only to re-raise it as something else.
"""

from __future__ import annotations


class ActionError(ValueError):
    status = 400  # the HTTP status the API answers with
    code = "invalid"  # the API error body's code when the status is not 400

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field
