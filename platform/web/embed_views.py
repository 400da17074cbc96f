"""/matches/<id>/embed/: the replay viewer alone, for an <iframe> on a blog or a forum.

The one page another site may frame: its response replaces the policy's frame-ancestors 'none' with any
site and is exempt from X-Frame-Options; every other page keeps both (settings.CONTENT_SECURITY_POLICY). The
rest of the policy is the site's own (no inline script, nothing from elsewhere). It shows exactly what the
match page's replay shows anyone: a match without a viewable replay — not finished, a validation match
(its owner's business, and a frame is read without the owner's session), or one whose deal another match
still plays (matches.access.deal_embargo) — is a 404, like its frames.
"""

from __future__ import annotations

from csp.decorators import csp_replace
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt

from matches.access import deal_embargo
from matches.models import Match

ANY_SITE = {"frame-ancestors": ["*"]}


@xframe_options_exempt
@csp_replace(ANY_SITE)
def match_embed(request, pk: int):
    match = Match.objects.filter(pk=pk, status=Match.Status.FINISHED).exclude(kind=Match.Kind.VALIDATION).first()
    if match is None or not match.replay_sha256:
        raise Http404("no replay for this match")
    if deal_embargo(match):
        raise Http404("this replay is embargoed until every match of its deal has ended")
    seats = [{"row": s} for s in match.seats.select_related("version__bot").order_by("seat")]
    return render(request, "web/embed.html", {"match": match, "seats": seats, "embedded": True})
