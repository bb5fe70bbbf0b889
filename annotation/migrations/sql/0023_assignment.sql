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

CREATE OR REPLACE FUNCTION evalsite_annotator_progress(p_task bigint, p_user bigint)
RETURNS TABLE (batch_size integer, judged bigint, batches bigint, crowd boolean)
LANGUAGE plpgsql STABLE AS $$
-- The annotator's progress (annotation/selectors/annotation.py: annotator_progress): their
-- current batch's size and slots done (judged by whoever held it before counts: the batch
-- is what is left), the batches they had, whether they are a crowd participant. No row:
-- no batch yet. (PL/pgSQL, not SQL: migration 0012 installs this file before the crowd
-- table exists, and only an SQL function's body is checked then.)
BEGIN
    RETURN QUERY
    SELECT b.size::integer,
           (SELECT count(*) FROM annotation_slot s WHERE s.batch_id = b.id AND s.state = 'done'),
           (SELECT count(DISTINCT s.batch_id) FROM annotation_slot s
             WHERE s.task_id = p_task AND s.annotator_id = p_user),
           EXISTS (SELECT 1 FROM annotation_crowdparticipant c
                    WHERE c.task_id = p_task AND c.user_id = p_user)
      FROM annotation_batch b
     WHERE b.task_id = p_task AND b.annotator_id = p_user
     ORDER BY b.state = 'leased' DESC, b.number DESC
     LIMIT 1;
END $$;

CREATE OR REPLACE FUNCTION evalsite_judge_and_claim(
    p_task bigint, p_slot bigint, p_user bigint, p_now timestamptz, p_lease_seconds integer,
    p_quota integer, p_crowd_quota integer,
    p_score smallint, p_fluency smallint, p_preference varchar
) RETURNS TABLE (
    outcome text, recorded_id bigint, recorded_ms integer, next_slot bigint,
    batch_size integer, judged bigint, batches bigint, crowd boolean
)
LANGUAGE plpgsql AS $$
-- Records a judgment whose answer needs no item to check (Likert, pairwise A/B/T; checked
-- in Python before the call), claims the annotator's next slot and reads their progress
-- (evalsite_annotator_progress): one round trip. The
-- checks and their order are those of annotation/services/judgments.py
-- (judgment_record_in_transaction), whose words annotation/services/judging.py gives every
-- outcome but 'recorded'; on 'existing' (this annotator judged the slot already) the
-- general path compares the answers.
-- Migration 0023_judgment_submit_and_claim installs this file as it is; tests/test_batches.py
-- checks the installed copy against it.
DECLARE
    v_slot annotation_slot;
    v_task_state text;
    v_task_type text;
    v_judged_by bigint;
    v_judgment bigint;
    v_duration integer;
    v_quota integer;
    v_next bigint;
BEGIN
    -- The batch before the slot: the claim's lock order (no deadlock with a takeover).
    PERFORM 1 FROM annotation_batch b JOIN annotation_slot s ON s.batch_id = b.id
     WHERE s.id = p_slot AND b.task_id = p_task FOR UPDATE OF b;
    SELECT * INTO v_slot FROM annotation_slot WHERE id = p_slot AND task_id = p_task FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::integer, NULL::bigint, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    SELECT annotator_id INTO v_judged_by FROM annotation_judgment WHERE slot_id = p_slot;
    IF FOUND THEN
        RETURN QUERY SELECT CASE WHEN v_judged_by = p_user THEN 'existing' ELSE 'taken' END,
                            NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::integer, NULL::bigint, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    SELECT state, task_type INTO v_task_state, v_task_type FROM annotation_task WHERE id = p_task;
    IF v_task_state <> 'launched' THEN
        RETURN QUERY SELECT 'task_' || v_task_state, NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::integer, NULL::bigint, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM annotation_skip WHERE slot_id = p_slot) THEN
        RETURN QUERY SELECT 'skipped'::text, NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::integer, NULL::bigint, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    IF v_slot.annotator_id IS DISTINCT FROM p_user OR v_slot.state <> 'leased' THEN
        RETURN QUERY SELECT 'not_assigned'::text, NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::integer, NULL::bigint, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    IF v_slot.served_at IS NULL THEN
        RETURN QUERY SELECT 'not_served'::text, NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::integer, NULL::bigint, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    v_duration := GREATEST(0, trunc(extract(epoch FROM p_now - v_slot.served_at) * 1000));
    -- The unique constraints (one judgment per slot, per annotator and item) guard it.
    INSERT INTO annotation_judgment (
        slot_id, task_id, item_id, annotator_id, task_type, is_repeat, score, fluency,
        preference, served_at, submitted_at, duration_ms, excluded)
    VALUES (
        p_slot, p_task, v_slot.item_id, p_user, v_task_type, v_slot.is_repeat, p_score, p_fluency,
        p_preference, v_slot.served_at, p_now, v_duration, false)
    ON CONFLICT DO NOTHING
    RETURNING id INTO v_judgment;
    IF v_judgment IS NULL THEN
        RETURN QUERY SELECT 'judged_already'::text, NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::integer, NULL::bigint, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    UPDATE annotation_slot SET state = 'done' WHERE id = p_slot;
    -- The batch closes after its last judgment, else its lease is renewed.
    UPDATE annotation_batch SET
        state = CASE WHEN pending THEN 'leased' ELSE 'done' END,
        leased_until = CASE WHEN pending THEN p_now + make_interval(secs => p_lease_seconds) END
      FROM (SELECT EXISTS (SELECT 1 FROM annotation_slot
                            WHERE batch_id = v_slot.batch_id AND state <> 'done') AS pending) p
     WHERE id = v_slot.batch_id AND annotator_id = p_user;
    v_quota := CASE WHEN EXISTS (SELECT 1 FROM annotation_crowdparticipant
                                  WHERE task_id = p_task AND user_id = p_user)
                    THEN p_crowd_quota ELSE p_quota END;
    v_next := evalsite_claim_slot(p_task, p_user, p_now, p_lease_seconds, v_quota);
    RETURN QUERY SELECT 'recorded'::text, v_judgment, v_duration, v_next, p.*
                   FROM (SELECT 1) one LEFT JOIN evalsite_annotator_progress(p_task, p_user) p
                     ON true;
END $$;
