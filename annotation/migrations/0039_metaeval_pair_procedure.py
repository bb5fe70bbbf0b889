from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("annotation", "0038_cqc_shuffle_rate")]

    operations = [
        migrations.AddField(
            model_name="sharedtaskcampaign",
            name="procedure",
            field=models.CharField(blank=True, default="", max_length=10),
        ),
    ]
