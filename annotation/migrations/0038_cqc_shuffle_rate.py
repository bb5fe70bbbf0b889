from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("annotation", "0037_adaptive_assignment")]

    operations = [
        migrations.AddField(
            model_name="task",
            name="shuffle_rate",
            field=models.FloatField(default=0.0),
        ),
        migrations.AddConstraint(
            model_name="task",
            constraint=models.CheckConstraint(
                condition=models.Q(("shuffle_rate__gte", 0), ("shuffle_rate__lte", 1)),
                name="task_shuffle_rate_is_share",
            ),
        ),
    ]
