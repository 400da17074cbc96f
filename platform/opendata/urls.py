from django.urls import path

from opendata import views

urlpatterns = [
    path("", views.data_page, name="data"),
    path("manifest.json", views.data_manifest, name="data-manifest"),
    path("SHA256SUMS", views.data_checksums, name="data-checksums"),
    path("<str:preset>/<str:month>/<str:kind>/", views.data_file, name="data-file"),
]
