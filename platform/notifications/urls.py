from django.urls import path

from notifications import views

urlpatterns = [
    path("", views.inbox, name="notifications"),
    path("read/", views.mark_all_read, name="notifications-read"),
    path("settings/", views.save_settings, name="notifications-settings"),
    path("settings/rotate/", views.rotate_secret, name="notifications-rotate"),
    path("deliveries/", views.delivery_log, name="notifications-deliveries"),
    path("<int:pk>/", views.notification_detail, name="notification"),
]
