"""The hot path process: live sessions started and ended, the single store writer, the lake publisher,
health (the frames into the sessions: ``frame_intake``)."""

from __future__ import annotations

import logging
import time
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

from services.hotpath.cue import Cue
from services.hotpath.cue_stream import CueHub
from services.hotpath.frame_intake import FrameIntake, UnknownSession
from services.hotpath.frame_path import LiveSession
from services.hotpath.metrics import Histogram
from services.hotpath.references import BadArgument, choose_reference, use_gold
from services.hotpath.track_live import LiveTrackFinder
from services.hotpath.voices import audio_lengths
from shared import __version__
from shared.faults import crash_point
from shared.laps import Lap
from shared.profiles.car import CarProfileError, load_car
from shared.profiles.track import TrackProfile, known_tracks, list_tracks, load_track, save_track
from shared.settings import Settings
from shared.store.deletion import apply_tombstones, delete_session
from shared.store.hot import HotStore, new_session_id, open_hot_db
from shared.store.lake_mirror import mirror_for, uploader_for
from shared.store.publisher import LakePublisher
from shared.store.uploader import Uploader
from shared.store.writer import StoreWriter

log = logging.getLogger(__name__)


class SessionIsLive(RuntimeError):
    pass


class HotpathState(FrameIntake):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = HotStore(settings)  # the only read-write opener of the hot DuckDB file
        self.uploader: Uploader | None = None
        self.mirror = mirror_for(settings, on_added=self._kick_uploader)  # the S3 lake's spool, or None
        self.publisher = LakePublisher(self.store.con, settings.lake_dir, self.mirror)
        self.recovered = self._recover()
        if self.mirror is not None:  # never on the frame path: its own thread, retries with backoff
            self.uploader = uploader_for(settings, self.mirror)
            self.uploader.start()
        self.writer = StoreWriter(self.store.con, settings.flush_interval_s, reopen=self._reopen_store)
        FrameIntake.__init__(self)
        self._pub_seq: dict[str, int] = {}  # per session: lap publications queued so far
        self.latency = Histogram()
        self.hub = CueHub(settings.cue_queue_size)
        self.started = time.time()

    def _recover(self) -> list[str]:
        """Sessions left 'live' by a crash are closed explicitly as 'aborted' and published; sessions a
        crash left half-published (an import killed mid-publish) are published again."""
        apply_tombstones(
            self.store, self.settings.lake_dir, self.mirror
        )  # before repair: never republish a deleted one
        out = self.publisher.repair()  # also finishes publications a crash interrupted (compaction)
        for sid in self.store.open_live_sessions():
            try:
                self._close_and_publish(sid, "aborted")
            except Exception:  # a session with no rows still closes
                log.exception("could not publish recovered session %s", sid)
            log.warning("session %s was left live by an earlier crash: closed as aborted", sid)
            out.append(sid)
        return out

    def _kick_uploader(self) -> None:
        if self.uploader is not None:
            self.uploader.kick()

    def _reopen_store(self) -> Any:
        """On the writer thread, after a fatal DuckDB error (a full disk): a fresh connection to the file."""
        try:
            self.store.con.close()
        except Exception:  # an invalidated connection may refuse even to close
            log.debug("closing the invalidated store connection failed", exc_info=True)
        self.store.con = open_hot_db(self.settings)
        self.publisher.con = self.store.con
        return self.store.con

    def close(self) -> None:
        for sid in list(self.sessions):
            self.end_session(sid)
        self.writer.close()
        self.store.close()
        if self.uploader is not None:
            self.uploader.stop()

    # ---- sessions ------------------------------------------------------------------
    def start_session(
        self,
        driver_id: str,
        car: str,
        track: str | None,
        driver_level: str | None,
        note: str | None,
        reference: tuple[str, int | str] | str | None = None,
        track_profile: TrackProfile | None = None,
    ) -> str:
        """Start a live session. ``track``: a shipped track or one stored under this service's data
        directory; a ``track_profile`` it does not have yet (same id) is stored there first.
        ``reference``: (session id, lap), any stored lap instead of the gold lap; ``"alltime"``, the
        driver's fastest lap here in this car over every stored session; ``"achievable"``, the achievable
        lap (laps joined where they matched) of the session holding that fastest lap, and (session id,
        ``"achievable"``) any session's; ``"session_best"``, no gold lap, this session's best;
        ``"last_lap"``, the previous completed valid lap of this session; None (default): the gold lap when
        one is saved, else this session's best.
        A bad car, track or reference is a BadArgument naming it."""
        try:
            car_p = load_car(car, self.settings.data_dir)
        except (KeyError, CarProfileError) as exc:
            raise BadArgument("car", str(exc.args[0] if exc.args else exc)) from exc
        if track_profile is not None:
            if track_profile.id != track:
                raise BadArgument("track_profile", f"is {track_profile.id!r} but track is {track!r}")
            if track_profile.id not in list_tracks():
                try:
                    save_track(self.settings.data_dir, track_profile)
                except ValueError as exc:
                    raise BadArgument("track_profile", str(exc)) from exc
        try:
            track_p = load_track(track, self.settings.data_dir) if track else None
        except KeyError as exc:
            raise BadArgument("track", str(exc.args[0] if exc.args else exc)) from exc
        sid = new_session_id()
        row = {
            "session_id": sid,
            "driver_id": driver_id,
            "car_id": car_p.id,
            "track_id": track_p.id if track_p else None,
            "track_name": track_p.name if track_p else None,
            "source_format": "live",
            "status": "live",
            "driver_level": driver_level,
            "note": note,
            "started_at": datetime.now(UTC).replace(tzinfo=None),
        }
        self.writer.submit("sessions", [row])
        sess = LiveSession(
            sid,
            car_p,
            track_p,
            self.writer.submit,
            self._on_cue,
            buffer_s=self.settings.flush_interval_s / 2,
            headset_latency_s=self.settings.headset_latency_s,
            audio_s=audio_lengths(self.settings.data_dir),
        )
        sess.mark = self.writer.mark
        if track_p is None:  # no silent default track: found from the session's own GPS fixes
            sess.finder = LiveTrackFinder(known_tracks(self.settings.data_dir))
            sess.on_track_found = lambda tr, sid=sid, d=driver_id, c=car_p.id: self._track_found(
                sid, tr, d, c
            )
        sess.on_lap_closed = lambda lap, sid=sid: self._publish_lap(sid, lap)
        sess.on_delta = lambda ev: self.hub.publish_state("delta", ev)
        choose_reference(self.settings, sess, track_p, driver_id, car_p.id, reference)
        self.sessions[sid] = sess
        self.active = sid
        return sid

    def _track_found(self, sid: str, track: TrackProfile, driver_id: str, car_id: str) -> None:
        """A live session's track, found from its GPS: stored with the session, and its gold lap used."""
        self.writer.call(lambda con: self.store.set_session_track(sid, track.id, track.name))
        sess = self.sessions.get(sid)
        if sess is not None:
            use_gold(self.settings, sess, track.id, driver_id, car_id)

    def end_session(self, sid: str) -> dict[str, Any]:
        sess = self.sessions.pop(sid, None)
        if sess is None:
            raise UnknownSession(sid)
        sess.finish()
        if self.active == sid:
            self.active = None

        self.writer.call(lambda con: self._close_and_publish(sid, "closed"))
        return sess.live_view()

    def _close_and_publish(self, sid: str, status: str) -> None:
        """Close a session in the store and publish it (the local lake, then its compacted S3 copy). The
        publisher's mark comes first: a crash anywhere after it is finished by the next start-up."""
        self.publisher.begin(sid)
        self.store.close_session(sid, status=status)
        crash_point("session_closed")
        self.publisher.publish_session(sid)

    def delete_session(self, sid: str, timeout_s: float = 30.0) -> dict[str, Any]:
        """Delete a finished session from the hot store and the lake (on the writer thread, in order
        with everything written before). A live session must be ended first."""
        if sid in self.sessions:
            raise SessionIsLive(sid)
        done: Future[dict[str, Any]] = Future()

        def job(con: Any) -> None:
            try:
                done.set_result(delete_session(self.store, self.settings.lake_dir, sid, self.mirror))
            except BaseException as exc:
                done.set_exception(exc)

        self.writer.call(job)
        return done.result(timeout_s)

    def _publish_lap(self, sid: str, lap: Lap) -> None:
        """On the writer thread, after the lap's rows. Laps closing faster than the writer drains (a
        replay) share one write of the small tables: only the newest queued publication writes them."""
        seq = self._pub_seq[sid] = self._pub_seq.get(sid, 0) + 1
        self.writer.call(
            lambda con: self.publisher.publish_lap(sid, lap.lap, small=self._pub_seq.get(sid) == seq)
        )

    def _on_cue(self, cue: Cue) -> None:
        self.latency.observe(cue.latency_ms)
        self.hub.publish("cue" if cue.status == "spoken" else "dropped", cue.event())

    # ---- views -------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        w = self.writer
        return {
            "status": "ok" if w.errors == 0 and not w.blocked else "degraded",
            "refusing_frames": w.blocked,
            "version": __version__,
            "active_session": self.active,
            "sessions": list(self.sessions),
            "ingest_fps": round(self.rate.rate, 1),
            **self.counters.as_dict(),
            "writer": {
                "lag_s": round(max(w.lag_s, self.buffered_s()), 3),
                "queue_depth": w.queue_depth,
                "buffered_frames": sum(s.pending_frames for s in self.sessions.values()),
                "blocked": w.blocked,
                "retries": w.retries,
                "rows_written": self.writer.rows_written,
                "errors": self.writer.errors,
                "last_error": self.writer.last_error,
            },
            "recovered_sessions": self.recovered,
            "cue_clients": len(self.hub.clients),
            **({"lake_upload": self.uploader.status()} if self.uploader is not None else {}),
        }
