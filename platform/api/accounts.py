"""The API of accounts: the current user and API tokens."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import AuthenticationFailed, NotFound, ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.actions import do_create_token, do_revoke_token
from accounts.auth import ApiTokenAuthentication
from accounts.limits import ClientAddressThrottle, throttled
from accounts.models import ApiToken, User
from accounts.throttle import LoginRefused
from api.schema import ApiView, error_response
from config.api import reject_unknown_fields


class UserSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "email", "date_joined", "is_staff"]
        read_only_fields = fields


class TokenSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="token_key", read_only=True, help_text="public id (the token's prefix)")

    class Meta:
        model = ApiToken
        fields = ["id", "name", "created", "expiry", "last_used"]
        read_only_fields = fields


class NewTokenSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=64, help_text="what the token is for, e.g. 'laptop'")
    expires_in_days = serializers.IntegerField(min_value=1, max_value=3650, required=False, allow_null=True,
                                               help_text="omit for a token that never expires")

    def validate_name(self, value: str) -> str:
        value = value.strip()
        if not value or any(ord(ch) < 32 for ch in value):
            raise ValidationError("a token name must be printable text")
        return value


class LoginSerializer(NewTokenSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=256, style={"input_type": "password"})


class CreatedTokenSerializer(TokenSerializer):
    token = serializers.CharField(read_only=True, help_text="the secret; shown once")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]




def _created(token: ApiToken, secret: str) -> Response:
    body = CreatedTokenSerializer(token).data
    body["token"] = secret
    return Response(body, status=status.HTTP_201_CREATED)


class MeView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=UserSerializer, summary="The signed-in user")
    def get(self, request):
        return Response(UserSerializer(request.user).data)


class TokenLoginView(ApiView, APIView):
    """Exchange a username and password for a new named token (what `arena login` does). Limited like the
    web log-in (accounts/throttle.py): per address, and per account without locking its owner out."""

    permission_classes = [AllowAny]
    authentication_classes = [ApiTokenAuthentication]  # so a failed log-in answers 401 with WWW-Authenticate

    # auth=[]: it takes a password, not a token (so a generated client logs in with its plain Client)
    @extend_schema(request=LoginSerializer, summary="Log in for a token", auth=[], responses={
        201: CreatedTokenSerializer,
        401: error_response("wrong username or password (or the account is suspended)"),
        429: error_response("too many failed log-ins: retry after `retry_after_seconds`")})
    def post(self, request):
        reject_unknown_fields(LoginSerializer, request.data)
        form = LoginSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:  # under the log-in limits (accounts/backends.py)
            user = authenticate(request, username=form.validated_data["username"],
                                password=form.validated_data["password"])
        except LoginRefused as err:
            raise throttled(err.refused) from None
        if user is None:
            raise AuthenticationFailed("wrong username or password (or the account is suspended)")
        token, secret = do_create_token(user, form.validated_data["name"], form.validated_data.get("expires_in_days"))
        return _created(token, secret)


class TokenListView(ApiView, APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "write"

    def get_throttles(self):
        return super().get_throttles() if self.request.method == "POST" else []

    @extend_schema(responses=TokenSerializer(many=True), summary="My API tokens")
    def get(self, request):
        return Response(TokenSerializer(ApiToken.objects.filter(user=request.user), many=True).data)

    @extend_schema(request=NewTokenSerializer, responses={201: CreatedTokenSerializer}, summary="Create a token")
    def post(self, request):
        reject_unknown_fields(NewTokenSerializer, request.data)
        form = NewTokenSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        token, secret = do_create_token(request.user, form.validated_data["name"],
                                        form.validated_data.get("expires_in_days"))
        return _created(token, secret)


class TokenDetailView(ApiView, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={204: None}, summary="Revoke a token")
    def delete(self, request, public_id: str):
        if not do_revoke_token(request.user, public_id):
            raise NotFound("no such token")
        return Response(status=status.HTTP_204_NO_CONTENT)

