from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("game", "0012_public_versions"),
        ("game", "0013_merge_0012_ratings_0012_room_sessions"),
    ]

    operations = []
