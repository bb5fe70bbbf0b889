from django.db import migrations, models

# What the imports named the one document of a source without ids (text files; Appraise).
IMPLICIT_NAMES = ("document-1", "appraise")


def mark_implicit(apps, schema_editor):
    Document = apps.get_model("annotation", "Document")
    alone = (
        Document.objects.values("campaign_id")
        .annotate(n=models.Count("id"))
        .filter(n=1)
        .values("campaign_id")
    )
    Document.objects.filter(external_id__in=IMPLICIT_NAMES, campaign_id__in=alone).update(
        implicit=True
    )


class Migration(migrations.Migration):
    dependencies = [("annotation", "0009_job_heartbeat")]

    operations = [
        migrations.AddField(
            model_name="document",
            name="implicit",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="pendingupload",
            name="documents_filename",
            field=models.CharField(blank=True, max_length=255),
        ),
        migrations.AddField(
            model_name="pendingupload",
            name="documents",
            field=models.BinaryField(null=True),
        ),
        migrations.RunPython(mark_implicit, migrations.RunPython.noop),
    ]
