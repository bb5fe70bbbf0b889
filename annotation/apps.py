from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "evalsite"
    default_auto_field = "django.db.models.BigAutoField"
