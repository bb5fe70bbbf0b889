from django.db import migrations, models

DEFAULT_DOCUMENT = "document-1"  # what imports named the document of a source without ids


def mark_implicit(apps, schema_editor):
    Document = apps.get_model("annotation", "Document")
    alone = (
        Document.objects.values("campaign_id")
        .annotate(n=models.Count("id"))
        .filter(n=1)
        .values("campaign_id")
    )
    Document.objects.filter(external_id=DEFAULT_DOCUMENT, campaign_id__in=alone).update(
        implicit=True
    )


class Migration(migrations.Migration):
    dependencies = [("annotation", "0007_login_failures")]

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
