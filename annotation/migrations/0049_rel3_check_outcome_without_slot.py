"""A check outcome may have no slot: an imported Anthea rating made of HOTW rows only gives
no judgment, and its checks still count for the rater (services.span_imports)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0048_perf_plpgsql_helpers"),
    ]

    operations = [
        migrations.AlterField(
            model_name="checkoutcome",
            name="slot",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="check_outcome",
                to="annotation.slot",
            ),
        ),
    ]
