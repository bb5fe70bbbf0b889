# Image for docker-compose.yml: the same code and settings as `make up`, configured by env.
FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY evalsite evalsite
COPY annotation annotation
COPY metrics metrics
RUN pip install --no-cache-dir .
COPY . .
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput -v 0
EXPOSE 8000
CMD ["gunicorn", "evalsite.wsgi", "-c", "evalsite/gunicorn.conf.py", "--bind", "0.0.0.0:8000"]
