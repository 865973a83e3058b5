"""Public versions (issue #31): a private answer no longer makes a version others see.
Games and events logged before count every change as public: public_version = version."""

from django.db import migrations, models


def every_change_was_public(apps, schema_editor):
    for name in ("Game", "GameEvent"):
        model = apps.get_model("game", name)
        model.objects.update(public_version=models.F("version"))


class Migration(migrations.Migration):

    dependencies = [
        ("game", "0011_merge_trump_site"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="public_version",
            field=models.PositiveIntegerField(default=0, verbose_name="public version"),
        ),
        migrations.AddField(
            model_name="game",
            name="private_steps",
            field=models.JSONField(blank=True, default=dict, verbose_name="private steps"),
        ),
        migrations.AddField(
            model_name="gameevent",
            name="public_version",
            field=models.PositiveIntegerField(default=0, verbose_name="public version"),
        ),
        migrations.AddField(
            model_name="gameevent",
            name="private_step",
            field=models.PositiveIntegerField(default=0, verbose_name="private step"),
        ),
        migrations.RunPython(every_change_was_public, migrations.RunPython.noop),
    ]
