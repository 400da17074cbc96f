"""How the OpenAPI schema describes our token authentication (``Authorization: Token kz_…``)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.auth.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix="Token")
