from django.contrib import admin

from ratings.models import Rating, Refit


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("version", "preset", "official", "provisional", "games", "wins", "draws", "losses")
    list_filter = ("preset", "provisional")


@admin.register(Refit)
class RefitAdmin(admin.ModelAdmin):
    list_display = ("preset", "at", "matches", "rated", "seconds")
