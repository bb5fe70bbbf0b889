"""The "next item" claim as one PostgreSQL function: one round trip instead of eight.

The logic is the one documented in ``annotation/services/assignment.py``; tests in
``tests/test_assignment.py`` hold it to that.
"""

from django.db import migrations

CLAIM_FUNCTION = r"""
CREATE OR REPLACE FUNCTION evalsite_claim_slot(
    p_task bigint, p_user bigint, p_now timestamptz, p_lease_seconds integer, p_quota integer
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_slot bigint;
    v_done bigint;
    v_originals bigint;
BEGIN
    -- One claim at a time per annotator: a double click cannot take two replicas of an item.
    PERFORM 1 FROM auth_user WHERE id = p_user FOR UPDATE;

    -- The slot they hold already: resuming after a closed browser.
    SELECT id INTO v_slot FROM annotation_slot
     WHERE task_id = p_task AND annotator_id = p_user AND state = 'leased'
     ORDER BY position LIMIT 1;
    IF v_slot IS NOT NULL THEN
        UPDATE annotation_slot SET leased_until = p_now + make_interval(secs => p_lease_seconds)
         WHERE id = v_slot;
        RETURN v_slot;
    END IF;

    -- A planned repeat that is due.
    SELECT count(*), count(*) FILTER (WHERE NOT is_repeat) INTO v_done, v_originals
      FROM annotation_judgment WHERE task_id = p_task AND annotator_id = p_user;
    SELECT id INTO v_slot FROM annotation_slot
     WHERE task_id = p_task AND annotator_id = p_user AND state = 'reserved'
       AND due_after <= v_done
     ORDER BY due_after LIMIT 1;

    -- The first open slot of an item they have not had, then a slot whose lease expired;
    -- none once their quota is full.
    IF v_slot IS NULL AND (p_quota = 0 OR v_originals < p_quota) THEN
        SELECT id INTO v_slot FROM annotation_slot
         WHERE task_id = p_task AND state = 'open' AND NOT is_repeat
           AND item_id NOT IN (SELECT item_id FROM annotation_slot
                                WHERE task_id = p_task AND annotator_id = p_user)
         ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF v_slot IS NULL THEN
            SELECT id INTO v_slot FROM annotation_slot
             WHERE task_id = p_task AND state = 'leased' AND NOT is_repeat
               AND leased_until < p_now
               AND item_id NOT IN (SELECT item_id FROM annotation_slot
                                    WHERE task_id = p_task AND annotator_id = p_user)
             ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED;
        END IF;
    END IF;

    -- At the very end, the repeats that are not due yet.
    IF v_slot IS NULL THEN
        SELECT id INTO v_slot FROM annotation_slot
         WHERE task_id = p_task AND annotator_id = p_user AND state = 'reserved'
         ORDER BY due_after LIMIT 1;
    END IF;
    IF v_slot IS NULL THEN
        RETURN NULL;
    END IF;
    UPDATE annotation_slot
       SET state = 'leased', annotator_id = p_user, served_at = p_now,
           leased_until = p_now + make_interval(secs => p_lease_seconds)
     WHERE id = v_slot;
    RETURN v_slot;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [("annotation", "0005_annotator_exclusion")]

    operations = [
        migrations.RunSQL(
            CLAIM_FUNCTION,
            reverse_sql="DROP FUNCTION IF EXISTS evalsite_claim_slot(bigint, bigint, timestamptz, "
            "integer, integer);",
        )
    ]
