"""The REST API (/api/v1/): the top layer beside the web pages. Each module serves one app's resources and
calls that app's ``actions`` and queries; nothing below imports from here. Shared DRF pieces (pagination,
the exception handler, unknown-field checks) live in config.api."""
