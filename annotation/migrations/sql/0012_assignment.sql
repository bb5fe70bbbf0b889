CREATE OR REPLACE FUNCTION evalsite_claim_slot(
    p_task bigint, p_user bigint, p_now timestamptz, p_lease_seconds integer, p_quota integer
) RETURNS bigint LANGUAGE plpgsql AS $$
-- The rules are documented in annotation/services/assignment.py. Migration 0012_task_batches
-- installs this file as it is; tests/test_batches.py checks the installed copy against it.
DECLARE
    v_batch bigint;
    v_slot bigint;
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
            -- The number of batches they had, for the quota.
            SELECT count(DISTINCT batch_id) INTO v_had FROM annotation_slot
             WHERE task_id = p_task AND annotator_id = p_user;
            IF p_quota > 0 AND v_had >= p_quota THEN
                RETURN NULL;
            END IF;
            -- The first open batch in launch order, then one abandoned (lease expired), with
            -- no item they have had: never an item twice (the other replicas of a batch
            -- they had hold the same items, so they are passed over).
            SELECT b.id INTO v_batch FROM annotation_batch b
             WHERE b.task_id = p_task AND b.state = 'open'
               AND NOT EXISTS (
                   SELECT 1 FROM annotation_slot theirs
                     JOIN annotation_slot mine ON mine.item_id = theirs.item_id
                    WHERE theirs.batch_id = b.id
                      AND mine.task_id = p_task AND mine.annotator_id = p_user)
             ORDER BY b.number LIMIT 1 FOR UPDATE OF b SKIP LOCKED;
            IF v_batch IS NULL THEN
                SELECT b.id INTO v_batch FROM annotation_batch b
                 WHERE b.task_id = p_task AND b.state = 'leased' AND b.leased_until < p_now
                   AND NOT EXISTS (
                       SELECT 1 FROM annotation_slot theirs
                         JOIN annotation_slot mine ON mine.item_id = theirs.item_id
                        WHERE theirs.batch_id = b.id
                          AND mine.task_id = p_task AND mine.annotator_id = p_user)
                 ORDER BY b.number LIMIT 1 FOR UPDATE OF b SKIP LOCKED;
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
            UPDATE annotation_slot SET served_at = p_now WHERE id = v_slot AND served_at IS NULL;
            RETURN v_slot;
        END IF;
        -- Nothing left in it (recording the last judgment closes a batch; this is a safety
        -- net): close it and look again.
        UPDATE annotation_batch SET state = 'done', leased_until = NULL WHERE id = v_batch;
    END LOOP;
END $$;
