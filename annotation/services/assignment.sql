CREATE OR REPLACE FUNCTION evalsite_claim_slot(
    p_task bigint, p_user bigint, p_now timestamptz, p_lease_seconds integer, p_quota integer
) RETURNS bigint LANGUAGE plpgsql AS $$
-- The rules are documented in annotation/services/assignment.py, which installs this file
-- (migration 0008_task_batches); tests/test_batches.py checks the installed copy.
DECLARE
    v_batch bigint;
    v_slot bigint;
    v_groups integer[];
    v_had bigint;
BEGIN
    -- One claim at a time per annotator: two tabs clicking "next" at once get one batch.
    PERFORM 1 FROM auth_user WHERE id = p_user FOR UPDATE;

    LOOP
        -- The batch they hold: resuming after a closed browser, even after its lease ran
        -- out if nobody took it over. Locked, so a takeover cannot happen meanwhile.
        SELECT id INTO v_batch FROM annotation_batch
         WHERE task_id = p_task AND annotator_id = p_user AND state = 'leased'
         ORDER BY number LIMIT 1 FOR UPDATE;

        IF v_batch IS NULL THEN
            -- The groups they had (an annotator gets one batch of a group: never an item
            -- twice) and the number of batches they had, for the quota.
            SELECT coalesce(array_agg(DISTINCT b."group"), '{}'), count(DISTINCT b.id)
              INTO v_groups, v_had
              FROM annotation_slot s JOIN annotation_batch b ON b.id = s.batch_id
             WHERE s.task_id = p_task AND s.annotator_id = p_user;
            IF p_quota > 0 AND v_had >= p_quota THEN
                RETURN NULL;
            END IF;
            -- The first open batch in launch order, then one abandoned (lease expired).
            SELECT id INTO v_batch FROM annotation_batch
             WHERE task_id = p_task AND state = 'open' AND NOT ("group" = ANY (v_groups))
             ORDER BY number LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF v_batch IS NULL THEN
                SELECT id INTO v_batch FROM annotation_batch
                 WHERE task_id = p_task AND state = 'leased' AND leased_until < p_now
                   AND NOT ("group" = ANY (v_groups))
                 ORDER BY number LIMIT 1 FOR UPDATE SKIP LOCKED;
            END IF;
            IF v_batch IS NULL THEN
                RETURN NULL;
            END IF;
            -- Taken whole: what is left of it is theirs (the previous holder's judgments
            -- stay theirs; a late answer of theirs is refused as a conflict).
            UPDATE annotation_batch SET state = 'leased', annotator_id = p_user
             WHERE id = v_batch;
            UPDATE annotation_slot SET state = 'leased', annotator_id = p_user, served_at = NULL
             WHERE batch_id = v_batch AND state <> 'done';
        END IF;

        SELECT id INTO v_slot FROM annotation_slot
         WHERE batch_id = v_batch AND state <> 'done'
         ORDER BY position LIMIT 1;
        IF v_slot IS NOT NULL THEN
            UPDATE annotation_batch
               SET leased_until = p_now + make_interval(secs => p_lease_seconds)
             WHERE id = v_batch;
            -- Time counts from the first showing.
            UPDATE annotation_slot SET served_at = coalesce(served_at, p_now) WHERE id = v_slot;
            RETURN v_slot;
        END IF;
        -- Nothing left in it (recording the last judgment closes a batch; this is a safety
        -- net): close it and look again.
        UPDATE annotation_batch SET state = 'done', leased_until = NULL WHERE id = v_batch;
    END LOOP;
END $$;
