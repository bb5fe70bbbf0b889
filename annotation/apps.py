from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "evalsite"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from annotation.services.logins import tokens_delete_on_password_change

        post_save.connect(
            tokens_delete_on_password_change,
            sender=get_user_model(),
            dispatch_uid="tokens_delete_on_password_change",
        )
