"""The one error the sandbox raises to its callers."""


class SandboxError(RuntimeError):
    """The sandbox cannot start a bot as asked (bad limits, missing backend, refused request).

    The message is meant for an operator: it says what was wrong and what would fix it.
    """
