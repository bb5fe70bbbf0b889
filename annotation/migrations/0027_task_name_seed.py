"""Task names (unique in a campaign, any case) and a seed drawn per task.

Existing tasks are named from their type, numbered in creation order where a campaign has
several of one type. Draft tasks still at the old shared seed 12345 get a seed of their own;
launched tasks keep theirs (their items were planned from it)."""

import secrets

import django.db.models.functions.text
from django.db import migrations, models

import annotation.models.tasks

OLD_SHARED_SEED = 12345
LABELS = {
    "adequacy": "Adequacy",
    "fluency": "Fluency",
    "adequacy_fluency": "Adequacy and fluency",
    "pairwise": "Pairwise preference",
    "ranking": "N-way ranking",
    "postedit": "Post-editing (HTER)",
    "esa": "Error span annotation (ESA)",
    "esa_prefilled": "ESA with pre-filled spans (ESA^AI)",
    "mqm": "MQM error annotation",
}


def name_and_seed(apps, schema_editor):
    Task = apps.get_model("annotation", "Task")
    seen: dict[tuple[int, str], int] = {}
    for task in Task.objects.order_by("id"):
        label = LABELS.get(task.task_type, task.task_type)
        count = seen.get((task.campaign_id, label), 0) + 1
        seen[(task.campaign_id, label)] = count
        task.name = label if count == 1 else f"{label} {count}"
        if task.state == "draft" and task.seed == OLD_SHARED_SEED:
            task.seed = secrets.randbelow(2**31)
        task.save(update_fields=["name", "seed"])


class Migration(migrations.Migration):
    dependencies = [("annotation", "0026_username_lower")]

    operations = [
        migrations.AddField(
            model_name="task",
            name="name",
            field=models.CharField(default="", max_length=100),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="task",
            name="seed",
            field=models.BigIntegerField(default=annotation.models.tasks.task_seed_new),
        ),
        migrations.RunPython(name_and_seed, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="task",
            constraint=models.UniqueConstraint(
                models.F("campaign"),
                django.db.models.functions.text.Lower("name"),
                name="task_name_unique_in_campaign",
            ),
        ),
    ]
