-- The annotator loop, every rule of it in one place: the quota, the claim, the checks before
-- a judgment or a skip, writing them, and closing a batch. Python (annotation/services/
-- judging.py) validates the answer, gives the refusals their words and writes a judgment's
-- spans in the same transaction; everything else is here, for every task type.
-- Migration 0050_cperf2_claim installs this file as it is (0048_perf_plpgsql_helpers'
-- copy was the one before). What changed: the "cperf2:" markers (a batch claimed is written
-- once, its lease with it; the quota read before the batches had, which only a quota needs;
-- evalsite_claim_with_progress, the claim and the progress in one statement for GET next
-- and the annotate page). Kept from the copies before: the "perf" paragraph below (0048);
-- "ccl:" markers (0047: a stratum's own cold start,
-- annotation_systempriority.cold_start, a contrastive set of systems' in screens, takes the
-- place of the task's where it is set, annotation/services/contrastive_adaptive.py);
-- "restart:" markers (0045: the quota of an invited annotator grows by items_per_annotator
-- each time a manager lets them start again, annotation/services/restarts.py, as a crowd
-- participant's grows by a batch per attempt); "adaptive:" markers (0037: the adaptive claim).
-- A later change copies it to a new file for a new migration (this one then stays as it
-- was: replaying the migrations installs each version in turn); tests/test_batches.py
-- checks that the installed functions are the newest file's.
--
-- A judgment's cost does not grow with its batch or the annotator's history: the batch
-- keeps its slots judged and skipped and where its next slot is (annotation_batch.judged,
-- .skipped, .next_position, written by the update that renews its lease), and the batches
-- an annotator had are counted as batches, not slots.
--
-- perf (migration 0048_perf_plpgsql_helpers): every function here is PL/pgSQL, whose
-- statements' plans are kept from call to call. An SQL function is inlined into its caller
-- only when its body is one expression without a subquery; the helpers' bodies hold
-- subqueries, so each call was parsed and planned anew (evalsite_batches_had, read on every
-- judgment for the progress, cost more than the judgment's insert).

-- Signatures that changed since migration 0025.
DROP FUNCTION IF EXISTS evalsite_batch_after_slot(bigint, bigint, timestamptz, integer);

CREATE OR REPLACE FUNCTION evalsite_annotator_quota(p_task bigint, p_user bigint)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
-- Batches one annotator may take; 0: no limit. A crowd participant is paid for one batch
-- per attempt (a manager may let one who failed the checks start again);
-- anyone else gets items_per_annotator rounded up to whole batches (a quota below the batch
-- size made it the capacity of the task's batches at launch: one batch), once per attempt
-- (restart: 1 + the restarts a manager gave them; one probe of one_restart_per_attempt).
-- (PL/pgSQL, as all of these: its plans are kept from call to call, an SQL function's are
-- made anew.)
BEGIN
RETURN (SELECT CASE
    WHEN c.attempts IS NOT NULL THEN c.attempts
    WHEN t.items_per_annotator > 0
        THEN ceil(t.items_per_annotator::numeric / GREATEST(1, t.batch_size))::integer
             -- restart: begin
             * (1 + (SELECT count(*) FROM annotation_annotatorrestart r
                      WHERE r.task_id = t.id AND r.annotator_id = p_user))::integer
             -- restart: end
    ELSE 0 END
  FROM annotation_task t
  LEFT JOIN annotation_crowdparticipant c ON c.task_id = t.id AND c.user_id = p_user
 WHERE t.id = p_task);
END $$;

CREATE OR REPLACE FUNCTION evalsite_batch_after_slot(
    p_batch bigint, p_user bigint, p_now timestamptz, p_lease_seconds integer,
    p_judged integer, p_skipped integer, p_position integer
) RETURNS boolean LANGUAGE plpgsql AS $$
-- After a slot of the annotator's batch was judged or skipped (p_judged or p_skipped 1, the
-- slot at p_position), and before a claim (0, 0, NULL): the batch counts it and closes when
-- nothing is left in it (its slots judged and skipped make its size), else its lease is
-- renewed. True: it closed now. The slot done was the first one left (slots are served in
-- order), so none is left before the next position. One update of unindexed columns while
-- the batch stays leased: in place (HOT).
DECLARE
    v_closed boolean;
BEGIN
UPDATE annotation_batch SET
    judged = judged + p_judged,
    skipped = skipped + p_skipped,
    next_position = GREATEST(next_position, p_position + 1),
    state = CASE WHEN judged + p_judged + skipped + p_skipped < size THEN 'leased' ELSE 'done' END,
    leased_until = CASE WHEN judged + p_judged + skipped + p_skipped < size
                        THEN p_now + make_interval(secs => p_lease_seconds) END
 WHERE id = p_batch AND annotator_id = p_user
RETURNING state = 'done' INTO v_closed;
RETURN v_closed;
END $$;

CREATE OR REPLACE FUNCTION evalsite_batches_had(p_task bigint, p_user bigint)
RETURNS bigint LANGUAGE plpgsql STABLE AS $$
-- The batches the annotator had (for the quota and their progress): those they hold or
-- closed, and those taken over from them after they judged or skipped some of it (their
-- slots there stay theirs; a batch taken over before that was never theirs). Counted as
-- batches (batch_annotator_idx, batch_taken_over_idx), not as their slots.
BEGIN
RETURN (SELECT count(*) FROM annotation_batch b
         WHERE b.task_id = p_task AND b.annotator_id = p_user)
     + (SELECT count(*) FROM annotation_batch b
         WHERE b.task_id = p_task AND b.taken_over AND b.annotator_id IS DISTINCT FROM p_user
           AND EXISTS (SELECT 1 FROM annotation_slot s
                        WHERE s.batch_id = b.id AND s.annotator_id = p_user));
END $$;

CREATE OR REPLACE FUNCTION evalsite_batch_is_new_to(p_batch bigint, p_task bigint, p_user bigint)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
-- Whether the batch holds no item the annotator has had: never an item twice (the other
-- replicas of a batch they had hold the same items, so they are passed over).
BEGIN
RETURN NOT EXISTS (
    SELECT 1 FROM annotation_slot theirs
      JOIN annotation_slot mine ON mine.item_id = theirs.item_id
     WHERE theirs.batch_id = p_batch AND mine.task_id = p_task AND mine.annotator_id = p_user);
END $$;

-- TUTORIAL GATE (0036_tutorial) --------------------------------------------------------
CREATE OR REPLACE FUNCTION evalsite_tutorial_passed(p_task bigint, p_user bigint)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
-- Whether the annotator may have the task's real items: the task has no tutorial item, or
-- they passed an attempt at its tutorial (annotation/services/tutorials.py). Two index
-- probes, read only when a new batch is claimed.
BEGIN
RETURN NOT EXISTS (SELECT 1 FROM annotation_tutorialitem WHERE task_id = p_task)
    OR EXISTS (SELECT 1 FROM annotation_tutorialattempt
                WHERE task_id = p_task AND annotator_id = p_user AND passed);
END $$;
-- END TUTORIAL GATE ---------------------------------------------------------------------

-- adaptive: begin
CREATE OR REPLACE FUNCTION evalsite_adaptive_batch(
    p_task bigint, p_user bigint, p_cold integer, p_budget integer
) RETURNS bigint LANGUAGE plpgsql AS $$
-- An adaptive task's next batch for the annotator, locked (SKIP LOCKED): the first open one,
-- in launch order, holding no item they have had, of the system (a contrastive task: the
-- set of systems) that comes first by (1) still in the cold start (judged + claimed below
-- its own cold start, else p_cold), fewest first; (2) the
-- priority the refresh job wrote (metrics.adaptive.system_priorities), discounted by the
-- judgments claimed since ((judged / (judged + pending))^2: a judgment's gain falls as
-- 1 / n^2), so that claims between two refreshes spread over the open pairs. The batch's
-- slots are added to its system's pending count. One probe of batch_open_stratum_idx per
-- system tried (a task has tens of systems, not thousands). None once the slots judged and
-- claimed reach the judgments budget (p_budget > 0): the budget holds to a batch, while the
-- refresh job, which stops the task, runs behind.
DECLARE
    v_stratum bigint;
    v_batch bigint;
    v_size integer;
BEGIN
    IF p_budget > 0 AND (SELECT sum(judged + pending) FROM annotation_systempriority
                          WHERE task_id = p_task) >= p_budget THEN
        RETURN NULL;
    END IF;
    -- ccl: a stratum's own cold start (a contrastive set's, in screens), else the task's.
    FOR v_stratum IN
        SELECT p.stratum FROM annotation_systempriority p WHERE p.task_id = p_task
         ORDER BY (p.judged + p.pending < COALESCE(p.cold_start, p_cold)) DESC,
                  CASE WHEN p.judged + p.pending < COALESCE(p.cold_start, p_cold) THEN 0
                       ELSE p.priority * power(p.judged::float8
                                               / GREATEST(p.judged + p.pending, 1), 2)
                  END DESC,
                  p.judged + p.pending, p.stratum
    LOOP
        SELECT b.id, b.size INTO v_batch, v_size FROM annotation_batch b
         WHERE b.task_id = p_task AND b.stratum = v_stratum AND b.state = 'open'
           AND evalsite_batch_is_new_to(b.id, p_task, p_user)
         ORDER BY b.number LIMIT 1 FOR UPDATE OF b SKIP LOCKED;
        IF v_batch IS NOT NULL THEN
            UPDATE annotation_systempriority SET pending = pending + v_size
             WHERE task_id = p_task AND stratum = v_stratum;
            RETURN v_batch;
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
-- adaptive: end

CREATE OR REPLACE FUNCTION evalsite_claim_slot(p_task bigint, p_user bigint, p_now timestamptz)
RETURNS bigint LANGUAGE plpgsql AS $$
-- The slot the annotator should judge now; NULL when nothing is left for them. The rules are
-- documented in annotation/services/assignment.py.
DECLARE
    v_batch bigint;
    v_slot bigint;
    v_page integer;  -- the claimed slot's page (a document task), else NULL
    v_quota integer;  -- cperf2: (was v_had, the batches they had)
    v_lease integer;
    v_renewed boolean;
    v_adaptive boolean;  -- adaptive: the task's assignment
    v_cold integer;
    v_budget integer;
    v_stopped boolean;
BEGIN
    -- One claim at a time per annotator: two tabs clicking "next" at once get one batch.
    PERFORM 1 FROM auth_user WHERE id = p_user FOR UPDATE;
    SELECT lease_seconds, assignment = 'adaptive', cold_start,
           CASE WHEN continued_at IS NULL THEN judgment_budget ELSE 0 END,
           settled_at IS NOT NULL AND continued_at IS NULL
      INTO v_lease, v_adaptive, v_cold, v_budget, v_stopped
      FROM annotation_task WHERE id = p_task;
    -- adaptive: a task the stopping rule settled hands out nothing until the organiser
    -- continues it (annotation/services/adaptive.py).
    IF v_stopped THEN
        RETURN NULL;
    END IF;

    LOOP
        -- The batch they hold: resuming after a closed browser, even after its lease ran
        -- out if nobody took it over. Locked, so a takeover cannot happen meanwhile.
        SELECT id, leased_until = p_now + make_interval(secs => v_lease)
          INTO v_batch, v_renewed FROM annotation_batch
         WHERE task_id = p_task AND annotator_id = p_user AND state = 'leased'
         ORDER BY number LIMIT 1 FOR UPDATE;

        IF v_batch IS NULL THEN
            -- TUTORIAL GATE (0036_tutorial): no new batch before the tutorial is passed (a
            -- batch held already, e.g. a tutorial added mid-batch, is finished first).
            IF NOT evalsite_tutorial_passed(p_task, p_user) THEN
                RETURN NULL;
            END IF;
            -- END TUTORIAL GATE
            -- cperf2: the quota first (0: no limit), and the batches they had only against
            -- a quota (two counts the claim of a task without one does not need).
            v_quota := evalsite_annotator_quota(p_task, p_user);
            IF v_quota > 0 AND evalsite_batches_had(p_task, p_user) >= v_quota THEN
                RETURN NULL;
            END IF;
            -- The first open batch in launch order (adaptive: of the system with the
            -- highest priority), then one abandoned (lease expired), with no item they
            -- have had.
            IF v_adaptive THEN
                v_batch := evalsite_adaptive_batch(p_task, p_user, v_cold, v_budget);
            ELSE
                SELECT b.id INTO v_batch FROM annotation_batch b
                 WHERE b.task_id = p_task AND b.state = 'open'
                   AND evalsite_batch_is_new_to(b.id, p_task, p_user)
                 ORDER BY b.number LIMIT 1 FOR UPDATE OF b SKIP LOCKED;
            END IF;
            IF v_batch IS NULL THEN
                SELECT b.id INTO v_batch FROM annotation_batch b
                 WHERE b.task_id = p_task AND b.state = 'leased' AND b.leased_until < p_now
                   AND evalsite_batch_is_new_to(b.id, p_task, p_user)
                 ORDER BY b.number LIMIT 1 FOR UPDATE OF b SKIP LOCKED;
            END IF;
            IF v_batch IS NULL THEN
                RETURN NULL;
            END IF;
            -- Taken whole: what is left of it is theirs (the previous holder's judgments
            -- stay theirs; a late answer of theirs is refused as a conflict).
            -- cperf2: its lease set here too, so the batch row is written once per claim (the
            -- renewal below was a second version of it; a batch with nothing left is closed
            -- by the safety net below).
            UPDATE annotation_batch
               SET state = 'leased', annotator_id = p_user,
                   taken_over = taken_over OR COALESCE(annotator_id <> p_user, false),
                   leased_until = p_now + make_interval(secs => v_lease)
             WHERE id = v_batch;
            UPDATE annotation_slot SET state = 'leased', annotator_id = p_user, served_at = NULL
             WHERE batch_id = v_batch AND state <> 'done';
            v_renewed := true;
        END IF;

        -- Its lease renewed, or closed when nothing is left in it (recording the last
        -- judgment closes a batch; this is a safety net), then look again. Not when the
        -- judgment just recorded renewed it (still leased: something is left): the same
        -- values again would be one more row version per judgment.
        IF NOT COALESCE(v_renewed, false) THEN
            v_renewed := NOT evalsite_batch_after_slot(v_batch, p_user, p_now, v_lease, 0, 0, NULL);
        END IF;
        IF v_renewed THEN
            -- The first slot left, from where the batch says it is (an index probe).
            SELECT id, page INTO v_slot, v_page FROM annotation_slot
             WHERE batch_id = v_batch AND state <> 'done'
               AND position >= (SELECT next_position FROM annotation_batch WHERE id = v_batch)
             ORDER BY position LIMIT 1;
            IF v_slot IS NULL THEN
                -- Never expected: the batch's figures disagree with its slots; the slots win.
                SELECT id, page INTO v_slot, v_page FROM annotation_slot
                 WHERE batch_id = v_batch AND state <> 'done' ORDER BY position LIMIT 1;
                IF v_slot IS NULL THEN
                    UPDATE annotation_batch SET state = 'done', leased_until = NULL
                     WHERE id = v_batch;
                    CONTINUE;
                END IF;
            END IF;
            -- Time counts from the first showing. A document page (slot.page: the position
            -- of its first slot) is shown whole: its slots are served together, so any of
            -- them may be judged (the page is submitted at once).
            IF v_page IS NULL THEN
                UPDATE annotation_slot SET served_at = p_now
                 WHERE id = v_slot AND served_at IS NULL;
            ELSE
                UPDATE annotation_slot SET served_at = p_now
                 WHERE batch_id = v_batch AND page = v_page AND served_at IS NULL;
            END IF;
            RETURN v_slot;
        END IF;
    END LOOP;
END $$;

-- cperf2: begin
CREATE OR REPLACE FUNCTION evalsite_claim_with_progress(
    p_task bigint, p_user bigint, p_now timestamptz
) RETURNS TABLE (
    next_slot bigint, batch_size integer, judged bigint, skipped bigint, batches bigint,
    quota integer
)
LANGUAGE plpgsql AS $$
-- The claim (evalsite_claim_slot) and the annotator's progress after it, in one statement
-- (GET next, the annotate page): as evalsite_judge_and_claim answers after a judgment. The
-- progress is read by a statement of its own, so it sees the claim.
DECLARE
    v_next bigint;
BEGIN
    v_next := evalsite_claim_slot(p_task, p_user, p_now);
    RETURN QUERY SELECT v_next, p.*
                   FROM (SELECT 1) one LEFT JOIN evalsite_annotator_progress(p_task, p_user) p
                     ON true;
END $$;
-- cperf2: end

CREATE OR REPLACE FUNCTION evalsite_annotator_progress(p_task bigint, p_user bigint)
RETURNS TABLE (batch_size integer, judged bigint, skipped bigint, batches bigint, quota integer)
LANGUAGE plpgsql STABLE AS $$
-- The annotator's progress (annotation/selectors/annotation.py: AnnotatorProgress): their
-- current (else last) batch's size, its slots judged and skipped (by whoever held it before
-- too: the batch is what is left), the batches they had, how many they may have. No row:
-- no batch yet. Read from the batch's figures, not its slots.
BEGIN
RETURN QUERY
SELECT b.size::integer, b.judged::bigint, b.skipped::bigint,
       evalsite_batches_had(p_task, p_user),
       evalsite_annotator_quota(p_task, p_user)
  FROM annotation_batch b
 WHERE b.id = COALESCE(
    -- The one they hold (batch_annotator_idx to it), else the last they had: not a sort
    -- of all of theirs on every judgment.
    (SELECT h.id FROM annotation_batch h
      WHERE h.task_id = p_task AND h.annotator_id = p_user AND h.state = 'leased'
      ORDER BY h.number DESC LIMIT 1),
    (SELECT h.id FROM annotation_batch h
      WHERE h.task_id = p_task AND h.annotator_id = p_user
      ORDER BY h.number DESC LIMIT 1));
END $$;

CREATE OR REPLACE FUNCTION evalsite_slot_refusal(p_task bigint, p_slot bigint, p_user bigint)
RETURNS text LANGUAGE plpgsql AS $$
-- Why the annotator may not judge or skip the slot now, checked in this order; NULL: they
-- may. Locks the slot's batch, then the slot (the claim's lock order: no deadlock with a
-- takeover or a second tab). The reasons' words are in annotation/services/judging.py.
-- 'mine_judged' and 'mine_skipped': they did so already (a retry, a double click).
DECLARE
    v_slot annotation_slot;
    v_by bigint;
    v_task_state text;
BEGIN
    PERFORM 1 FROM annotation_batch b JOIN annotation_slot s ON s.batch_id = b.id
     WHERE s.id = p_slot AND b.task_id = p_task FOR UPDATE OF b;
    SELECT * INTO v_slot FROM annotation_slot WHERE id = p_slot AND task_id = p_task FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 'not_found';
    END IF;
    SELECT annotator_id INTO v_by FROM annotation_judgment WHERE slot_id = p_slot;
    IF FOUND THEN
        RETURN CASE WHEN v_by = p_user THEN 'mine_judged' ELSE 'taken' END;
    END IF;
    SELECT state INTO v_task_state FROM annotation_task WHERE id = p_task;
    IF v_task_state <> 'launched' THEN
        RETURN 'task_' || v_task_state;
    END IF;
    SELECT annotator_id INTO v_by FROM annotation_skip WHERE slot_id = p_slot;
    IF FOUND THEN
        RETURN CASE WHEN v_by = p_user THEN 'mine_skipped' ELSE 'not_assigned' END;
    END IF;
    IF v_slot.annotator_id IS DISTINCT FROM p_user OR v_slot.state <> 'leased' THEN
        RETURN 'not_assigned';
    END IF;
    IF v_slot.served_at IS NULL THEN
        -- Items of a batch are judged in order: one not shown yet is not answered yet.
        RETURN 'not_served';
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION evalsite_judge_and_claim(
    p_task bigint, p_slot bigint, p_user bigint, p_now timestamptz, p_check_only boolean,
    p_claim text,
    p_score smallint, p_fluency smallint, p_preference varchar, p_ranks smallint[],
    p_candidate_scores smallint[], p_post_edit text, p_hter double precision,
    p_edits double precision, p_post_edit_length double precision
) RETURNS TABLE (
    outcome text, recorded_id bigint, recorded_ms integer, batch_closed boolean,
    next_slot bigint, batch_size integer, judged bigint, skipped bigint, batches bigint,
    quota integer
)
LANGUAGE plpgsql AS $$
-- The one writer of a judgment: records the answer (validated in Python before the call),
-- closes the batch after its last slot or renews its lease, claims the annotator's next slot
-- (p_claim: 'yes'; 'in_batch': not after a closed batch, the page stops between batches;
-- 'no') and reads their progress, in one statement. Outcomes: 'recorded'; 'mine_judged' (a retry:
-- recorded_id is the judgment, the caller compares the answers; the next slot is claimed
-- while the task runs); 'valid' (p_check_only: the answer was refused in Python, and
-- nothing else refuses the slot); else the reason evalsite_slot_refusal gives, nothing
-- written.
DECLARE
    v_reason text;
    v_slot annotation_slot;
    v_judgment bigint;
    v_duration integer;
    v_lease integer;
    v_closed boolean := false;
    v_next bigint;
BEGIN
    v_reason := evalsite_slot_refusal(p_task, p_slot, p_user);
    IF v_reason = 'mine_judged' THEN
        SELECT j.id, j.duration_ms, b.state = 'done' INTO v_judgment, v_duration, v_closed
          FROM annotation_judgment j JOIN annotation_slot s ON s.id = j.slot_id
          JOIN annotation_batch b ON b.id = s.batch_id
         WHERE j.slot_id = p_slot;
    ELSIF v_reason IS NOT NULL OR p_check_only THEN
        RETURN QUERY SELECT COALESCE(v_reason, 'valid'), NULL::bigint, NULL::integer,
                            NULL::boolean, NULL::bigint, NULL::integer, NULL::bigint,
                            NULL::bigint, NULL::bigint, NULL::integer;
        RETURN;
    ELSE
        SELECT * INTO v_slot FROM annotation_slot WHERE id = p_slot;
        SELECT lease_seconds INTO v_lease FROM annotation_task WHERE id = p_task;
        v_duration := GREATEST(0, trunc(extract(epoch FROM p_now - v_slot.served_at) * 1000));
        -- The unique constraints (one judgment per slot, per annotator and item) guard it.
        INSERT INTO annotation_judgment (
            slot_id, task_id, item_id, annotator_id, task_type, is_repeat, score, fluency,
            preference, ranks, candidate_scores, post_edit, hter, edits, post_edit_length,
            served_at, submitted_at, duration_ms, excluded)
        SELECT p_slot, p_task, v_slot.item_id, p_user, t.task_type, v_slot.is_repeat, p_score,
               p_fluency, p_preference, p_ranks, p_candidate_scores, p_post_edit, p_hter,
               p_edits, p_post_edit_length, v_slot.served_at, p_now, v_duration, false
          FROM annotation_task t WHERE t.id = p_task
        ON CONFLICT DO NOTHING
        RETURNING id INTO v_judgment;
        IF v_judgment IS NULL THEN
            RETURN QUERY SELECT 'judged_already'::text, NULL::bigint, NULL::integer,
                                NULL::boolean, NULL::bigint, NULL::integer, NULL::bigint,
                                NULL::bigint, NULL::bigint, NULL::integer;
            RETURN;
        END IF;
        UPDATE annotation_slot SET state = 'done' WHERE id = p_slot;
        v_closed := COALESCE(evalsite_batch_after_slot(
            v_slot.batch_id, p_user, p_now, v_lease, 1, 0, v_slot.position), false);
    END IF;
    -- A retry after a pause or close hands out no new work.
    IF EXISTS (SELECT 1 FROM annotation_task WHERE id = p_task AND state = 'launched')
       AND (p_claim = 'yes' OR (p_claim = 'in_batch' AND NOT v_closed)) THEN
        v_next := evalsite_claim_slot(p_task, p_user, p_now);
    END IF;
    RETURN QUERY SELECT CASE WHEN v_reason IS NULL THEN 'recorded' ELSE v_reason END,
                        v_judgment, v_duration, v_closed, v_next, p.*
                   FROM (SELECT 1) one LEFT JOIN evalsite_annotator_progress(p_task, p_user) p
                     ON true;
END $$;

CREATE OR REPLACE FUNCTION evalsite_skip(
    p_task bigint, p_slot bigint, p_user bigint, p_now timestamptz, p_reason varchar,
    p_note varchar
) RETURNS TABLE (outcome text, skip_id bigint, batch_closed boolean)
LANGUAGE plpgsql AS $$
-- The one writer of a skip (the judgment's sibling): the same checks
-- (evalsite_slot_refusal), then the slot is done for the annotator without a judgment, its
-- planned repeat and checks made from it (bad references, HOTW errors) in their batch are
-- cancelled (no companion of an item nobody judged), and the item goes to someone else in a batch of its own, claimed after the
-- planned ones (never by them: they had the item; a skipped repeat needs no one else). The
-- batch closes after its last slot, else its lease is renewed. Outcomes: 'recorded',
-- 'mine_skipped' (a double click: skip_id is the skip), else the refusal's reason.
DECLARE
    v_reason text;
    v_slot annotation_slot;
    v_skip bigint;
    v_cancelled integer;
    v_lease integer;
    v_closed boolean;
BEGIN
    v_reason := evalsite_slot_refusal(p_task, p_slot, p_user);
    IF v_reason = 'mine_skipped' THEN
        RETURN QUERY SELECT v_reason, k.id, false FROM annotation_skip k WHERE k.slot_id = p_slot;
        RETURN;
    ELSIF v_reason IS NOT NULL THEN
        RETURN QUERY SELECT v_reason, NULL::bigint, NULL::boolean;
        RETURN;
    END IF;
    SELECT * INTO v_slot FROM annotation_slot WHERE id = p_slot;
    INSERT INTO annotation_skip (slot_id, task_id, item_id, annotator_id, reason, note, created_at)
    VALUES (p_slot, p_task, v_slot.item_id, p_user, p_reason, p_note, p_now)
    RETURNING id INTO v_skip;
    UPDATE annotation_slot SET state = 'done' WHERE id = p_slot;
    IF NOT v_slot.is_repeat THEN
        DELETE FROM annotation_slot c USING annotation_item i
         WHERE c.batch_id = v_slot.batch_id AND c.state <> 'done' AND i.id = c.item_id
           AND ((c.item_id = v_slot.item_id AND c.is_repeat)
                OR i.original_id = v_slot.item_id);
        GET DIAGNOSTICS v_cancelled = ROW_COUNT;
        UPDATE annotation_batch SET size = size - v_cancelled
         WHERE id = v_slot.batch_id AND v_cancelled > 0;
        -- adaptive: the new batch keeps the skipped one's system (stratum).
        WITH fresh AS (
            INSERT INTO annotation_batch (task_id, number, "group", size, state, stratum)
            SELECT p_task, max(number) + 1, max("group") + 1, 1, 'open',
                   (SELECT stratum FROM annotation_batch WHERE id = v_slot.batch_id)
              FROM annotation_batch WHERE task_id = p_task
            RETURNING id)
        INSERT INTO annotation_slot (task_id, item_id, batch_id, position, replica, is_repeat, state)
        SELECT p_task, v_slot.item_id, fresh.id, 0,
               (SELECT COALESCE(max(replica), 0) + 1 FROM annotation_slot
                 WHERE item_id = v_slot.item_id AND NOT is_repeat),
               false, 'open'
          FROM fresh;
    END IF;
    SELECT lease_seconds INTO v_lease FROM annotation_task WHERE id = p_task;
    v_closed := COALESCE(evalsite_batch_after_slot(
        v_slot.batch_id, p_user, p_now, v_lease, 0, 1, v_slot.position), false);
    RETURN QUERY SELECT 'recorded'::text, v_skip, v_closed;
END $$;
