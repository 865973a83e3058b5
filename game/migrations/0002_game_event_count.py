from django.db import migrations, models
from django.db.models import Count


def count_logged_events(apps, schema_editor):
    # Games logged before this field existed continue their seq where the log ends.
    Game = apps.get_model("game", "Game")
    for game in Game.objects.annotate(logged=Count("events")).filter(logged__gt=0):
        Game.objects.filter(pk=game.pk).update(event_count=game.logged)


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="event_count",
            field=models.PositiveIntegerField(default=0, verbose_name="events logged"),
        ),
        migrations.RunPython(count_logged_events, migrations.RunPython.noop),
    ]
