"""The /data/ page and the dumps' files: what is listed is what a ``ready`` row names, nothing else."""

from __future__ import annotations

from datetime import date

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from opendata.models import Dump

KINDS = {"replays": "application/gzip", "index": "application/vnd.apache.parquet", "manifest": "application/json"}


def _ready():
    return Dump.objects.filter(status=Dump.Status.READY).order_by("-month", "preset")


def _url(dump: Dump, kind: str) -> str:
    return reverse("data-file", args=[dump.preset, dump.label, kind])


def data_page(request):
    dumps = list(_ready())
    rows = [{"dump": d, "files": [{**f, "url": _url(d, f["kind"]), "filename": str(f["name"]).rsplit("/", 1)[-1]}
                                  for f in d.files()]} for d in dumps]
    totals = {"dumps": len(dumps), "matches": sum(d.matches for d in dumps),
              "bytes": sum(d.replays_size + d.index_size + d.manifest_size for d in dumps)}
    return render(request, "opendata/data.html", {"rows": rows, "totals": totals})


def _dump(preset: str, month: str) -> Dump:
    try:
        first = date.fromisoformat(f"{month}-01")
    except ValueError:
        raise Http404(f"{month!r} is not a month (YYYY-MM)") from None
    dump = _ready().filter(preset=preset, month=first).first()
    if dump is None:
        raise Http404(f"no dump of {preset} for {month}")
    return dump


def data_file(request, preset: str, month: str, kind: str):
    if kind not in KINDS:
        raise Http404(f"a dump's files are {', '.join(KINDS)}")
    dump = _dump(preset, month)
    name = getattr(dump, f"{kind}_name")
    try:
        handle = default_storage.open(name, "rb")
    except FileNotFoundError:
        raise Http404(f"the {kind} file of this dump is not in storage") from None
    response = FileResponse(handle, as_attachment=True, filename=name.rsplit("/", 1)[-1],
                            content_type=KINDS[kind])
    response["Content-Length"] = str(getattr(dump, f"{kind}_size"))
    response["Digest"] = f"sha-256={getattr(dump, f'{kind}_sha256')}"  # hex, as the manifest and SHA256SUMS say
    return response


def data_manifest(request):
    """Every ready dump and its files, for programs: what the page shows."""
    listing = [{"preset": d.preset, "month": d.label, "matches": d.matches, "built": d.built.isoformat(),
                "withheld": d.withheld,
                "files": [{**f, "name": str(f["name"]).rsplit("/", 1)[-1], "url": request.build_absolute_uri(
                    _url(d, str(f["kind"])))} for f in d.files()]} for d in _ready()]
    return JsonResponse({"format": "kozyr-open-data-list", "version": 1, "dumps": listing},
                        json_dumps_params={"indent": 1})


def data_checksums(request):
    """``sha256sum -c SHA256SUMS`` in a folder of downloaded files checks them all."""
    lines = [f"{f['sha256']}  {str(f['name']).rsplit('/', 1)[-1]}" for d in _ready() for f in d.files()]
    return HttpResponse("".join(f"{line}\n" for line in lines), content_type="text/plain; charset=utf-8")



