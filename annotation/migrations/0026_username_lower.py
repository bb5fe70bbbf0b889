"""Usernames are unique whatever their case: "Bob" and "bob" cannot both sign up, not even
at the same moment (the check before the insert cannot see a concurrent sign-up's row)."""

from django.db import migrations

INDEX = "auth_user_username_lower_unique"


def refuse_case_duplicates(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT string_agg(username, ', ') FROM auth_user GROUP BY lower(username)"
            " HAVING count(*) > 1 LIMIT 5"
        )
        clashes = [row[0] for row in cursor.fetchall()]
    if clashes:
        raise RuntimeError(
            "accounts whose usernames differ only in case must be renamed or merged before "
            f"this migration: {'; '.join(clashes)}"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0025_loop_one_state_machine"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(refuse_case_duplicates, migrations.RunPython.noop),
        migrations.RunSQL(
            f"CREATE UNIQUE INDEX {INDEX} ON auth_user (lower(username))",
            f"DROP INDEX {INDEX}",
        ),
    ]
